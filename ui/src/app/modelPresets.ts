// Starting points for the servers Quire is tested against (docs/models.md): a
// preset fills the protocol, address, key variable and streaming switch; the
// user still names the model.

import type { ModelSettings } from "../platform";

export interface Preset {
  id: string;
  label: string;
  settings: Partial<ModelSettings>;
}

export const PRESETS: Preset[] = [
  { id: "ollama", label: "Ollama (this computer)", settings: { protocol: "openai", base_url: "http://localhost:11434/v1", api_key_env: null, stream_tool_turns: false } },
  { id: "openai", label: "OpenAI", settings: { protocol: "openai", base_url: "https://api.openai.com/v1", api_key_env: "OPENAI_API_KEY", stream_tool_turns: true } },
  { id: "anthropic", label: "Anthropic", settings: { protocol: "anthropic", base_url: "https://api.anthropic.com", api_key_env: "ANTHROPIC_API_KEY", stream_tool_turns: true } },
  { id: "vllm", label: "vLLM server", settings: { protocol: "openai", base_url: "http://localhost:8000/v1", api_key_env: null, stream_tool_turns: true } },
  { id: "llamacpp", label: "llama.cpp server", settings: { protocol: "openai", base_url: "http://localhost:8080/v1", api_key_env: null, stream_tool_turns: true } },
  { id: "lmstudio", label: "LM Studio", settings: { protocol: "openai", base_url: "http://localhost:1234/v1", api_key_env: null, stream_tool_turns: true } },
  { id: "openrouter", label: "OpenRouter", settings: { protocol: "openai", base_url: "https://openrouter.ai/api/v1", api_key_env: "OPENROUTER_API_KEY", stream_tool_turns: true } },
  { id: "deepseek", label: "DeepSeek", settings: { protocol: "openai", base_url: "https://api.deepseek.com/v1", api_key_env: "DEEPSEEK_API_KEY", stream_tool_turns: true } },
];

/** The preset whose address matches, if any. */
export function presetFor(settings: ModelSettings): Preset | undefined {
  return PRESETS.find((p) => p.settings.base_url === settings.base_url.replace(/\/+$/, ""));
}
