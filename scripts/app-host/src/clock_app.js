// The demo server's clock app (nb_elicit/demo/static/clock_app.html), written with the official
// app side (`App` of @modelcontextprotocol/ext-apps). It shows the time the `clock` tool
// returned; "Ask the server" calls the app-only tool `clock_now` through the host and shows the
// new time; "Send message" sends a message to the host (ui/message); "Open link" asks the host
// to open https://modelcontextprotocol.io (ui/open-link). Everything it shows is set as text.
import { App } from "@modelcontextprotocol/ext-apps";

const LINK = "https://modelcontextprotocol.io";
const $ = (id) => document.getElementById(id);
const show = (id, text) => { $(id).textContent = text; };

/** The time of a `clock` or `clock_now` result: its structured content, else its text. */
function timeOf(result) {
  const time = result?.structuredContent?.time;
  if (typeof time === "string") return time;
  const text = result?.content?.find?.((block) => block.type === "text")?.text;
  return typeof text === "string" ? text : "(no time)";
}

function failed(what, error) {
  const code = error?.code !== undefined ? ` ${error.code}` : "";
  show("status", `${what} failed${code}: ${error?.message ?? error}`);
}

const app = new App({ name: "nb-elicit-demo-clock", version: "1.0.0" });
let shownTime = "";

function showTime(result, where) {
  shownTime = timeOf(result);
  show("time", shownTime);
  show("source", where);
}

app.ontoolinput = ({ arguments: args }) => {
  const label = args?.label;
  show("label", typeof label === "string" && label ? label : "Server time");
};
app.ontoolresult = (result) => {
  if (result.isError) {
    show("status", "The clock tool failed.");
    return;
  }
  showTime(result, "from the clock tool's result");
};
app.ontoolcancelled = ({ reason }) => show("status", `The call was cancelled: ${reason ?? ""}`);
app.onhostcontextchanged = (context) => {
  if (context.theme) document.documentElement.dataset.theme = context.theme;
};

$("again").addEventListener("click", async () => {
  show("status", "Asking the server…");
  try {
    const result = await app.callServerTool({ name: "clock_now", arguments: {} });
    if (result.isError) {
      show("status", "clock_now failed.");
      return;
    }
    showTime(result, "from clock_now, called by this app");
    show("status", "The server answered.");
    await app.updateModelContext({
      content: [{ type: "text", text: `The clock app shows ${shownTime}.` }],
    });
  } catch (error) {
    failed("clock_now", error);
  }
});
$("message").addEventListener("click", async () => {
  try {
    const answer = await app.sendMessage({
      role: "user", content: [{ type: "text", text: `The clock showed ${shownTime || "nothing yet"}.` }],
    });
    show("status", answer?.isError ? "The host did not take the message." : "Message sent.");
  } catch (error) {
    failed("Send message", error);
  }
});
$("link").addEventListener("click", async () => {
  try {
    const answer = await app.openLink({ url: LINK });
    show("status", answer?.isError ? "The host did not take the link." : "The host took the link.");
  } catch (error) {
    failed("Open link", error);
  }
});

await app.connect();
const theme = app.getHostContext()?.theme;
if (theme) document.documentElement.dataset.theme = theme;
show("state", "connected");
