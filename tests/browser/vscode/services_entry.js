// What the emulated output page (page.js) takes from @jupyterlab/services, bundled by the test
// with esbuild into services.js: a kernel connection and its server settings.
import { KernelConnection } from "@jupyterlab/services/lib/kernel/default";
import { ServerConnection } from "@jupyterlab/services/lib/serverconnection";

window.jupyterlabServices = { KernelConnection, ServerConnection };
