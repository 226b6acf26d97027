import { render } from "preact";

import { App } from "./app/App";
import { tauriPlatform } from "./platform";
import "./styles.css";

const root = document.getElementById("app");
if (root !== null) render(<App platform={tauriPlatform} />, root);
