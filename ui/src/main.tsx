import { render } from "preact";

import { App } from "./app/App";
import { tauriPlatform } from "./platform";
import "./styles.css";

const root = document.getElementById("app");
if (root !== null) {
  render(<App platform={tauriPlatform} />, root);
  // Two frames later the first screen is on it: tell the host, which logs the start-up time.
  requestAnimationFrame(() => {
    requestAnimationFrame(() => {
      tauriPlatform.uiReady().catch(() => undefined);
    });
  });
}
