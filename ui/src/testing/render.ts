// Rendering helpers shared by the UI tests.

import { type ComponentChild, render } from "preact";
import { act } from "preact/test-utils";

/** Let pending promises and the renders they cause finish. */
export async function settle() {
  await act(async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
}

/** Render into `host` and wait for the first effects to settle. */
export async function mountInto(host: HTMLElement, node: ComponentChild) {
  await act(() => {
    render(node, host);
  });
  await settle();
}

/** A fresh element in the document to render into. */
export function createHost(): HTMLElement {
  const host = document.createElement("div");
  document.body.append(host);
  return host;
}

/** Unmount whatever is in `host` and take it out of the document. */
export function destroyHost(host: HTMLElement) {
  render(null, host);
  host.remove();
}
