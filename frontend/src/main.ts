/** Entry of the served app: the full editor at `/`, the chrome-less player at `/embed`. */

import { startApp } from "./app";
import { Layout } from "./view/layout";

const mode = /\/embed\/?$/.test(location.pathname) ? "embed" : "full";
(window as unknown as { gradstep: unknown }).gradstep = startApp({ mode, layout: new Layout() });
