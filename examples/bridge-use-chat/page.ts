/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// A useChat page against `agentscope serve`: the AI SDK's own `useChat` with its default transport,
// talking to the service's AI SDK bridge (docs/bridges.md, "AI SDK useChat"). Streaming text and
// reasoning, the agent's tool calls, approvals answered here, a reload that resumes the running
// reply (`resume: true`), and a stop that ends the run on the server.
//
// Run: npx agentscope serve    (with cors: { origins: ["http://127.0.0.1:8000"] } in its config)
//      npx esbuild examples/bridge-use-chat/page.ts --bundle --format=esm --outdir=examples/bridge-use-chat \
//        --servedir=examples/bridge-use-chat --serve=127.0.0.1:8000
//      open http://127.0.0.1:8000/?agent=assistant&server=http://127.0.0.1:8787
// The token is read from localStorage "agentscope.token" (the console's sign-in when the page is served
// from the service's origin; elsewhere set it in the page's devtools). A service without tokens needs none.

import { useChat } from "@ai-sdk/react";
import {
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from "ai";
import { createElement as h, useState } from "react";
import { createRoot } from "react-dom/client";

const query = new URLSearchParams(location.search);
const agent = query.get("agent") ?? "assistant";
const api = `${query.get("server") ?? ""}/v1/ai-sdk/${encodeURIComponent(agent)}/chat`;
const token = localStorage.getItem("agentscope.token");
const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

// The chat id is the service's session id; keeping it in the address lets a reload resume the reply.
const chatId = new URLSearchParams(location.hash.slice(1)).get("chat") ?? `chat-${crypto.randomUUID()}`;
history.replaceState(null, "", `${location.pathname}${location.search}#chat=${chatId}`);

const transport = new DefaultChatTransport({ api, headers });

function Part({
  part,
  approve,
}: {
  part: UIMessage["parts"][number];
  approve: (id: string, ok: boolean) => void;
}) {
  if (part.type === "text") return h("p", { className: "text" }, part.text);
  if (part.type === "reasoning") return h("p", { className: "reasoning" }, part.text);
  if (part.type === "dynamic-tool") {
    const asking = part.state === "approval-requested";
    return h(
      "div",
      { className: "tool", "data-tool": part.toolName, "data-state": part.state },
      h("code", null, `${part.toolName}(${JSON.stringify(part.input ?? {})})`),
      part.state === "output-available" ? h("pre", { className: "output" }, String(part.output)) : null,
      part.state === "output-error" ? h("pre", { className: "output error" }, part.errorText) : null,
      asking
        ? h(
            "button",
            { type: "button", className: "approve", onClick: () => approve(part.approval.id, true) },
            "Approve",
          )
        : null,
      asking
        ? h(
            "button",
            { type: "button", className: "deny", onClick: () => approve(part.approval.id, false) },
            "Deny",
          )
        : null,
    );
  }
  return null;
}

function App() {
  const [input, setInput] = useState("");
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse } = useChat({
    id: chatId,
    transport,
    resume: true,
    // After the page answers every approval, the answers go to the service, which goes on.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
  });
  const approve = (id: string, approved: boolean) => void addToolApprovalResponse({ id, approved });
  // useChat's stop only drops the connection (as a reload does); the service stops the run on this call.
  const stopRun = async () => {
    await stop();
    await fetch(`${api}/${encodeURIComponent(chatId)}/stop`, { method: "POST", headers });
  };
  return h(
    "main",
    null,
    h("div", { id: "status", "data-status": status }, status),
    error ? h("div", { id: "error" }, error.message) : null,
    ...messages.map((message) =>
      h(
        "div",
        { key: message.id, className: "message", "data-role": message.role, "data-id": message.id },
        ...message.parts.map((part, index) => h(Part, { key: index, part, approve })),
      ),
    ),
    h(
      "form",
      {
        id: "composer",
        onSubmit: (event: { preventDefault(): void }) => {
          event.preventDefault();
          if (input.trim() === "") return;
          void sendMessage({ text: input });
          setInput("");
        },
      },
      h("input", {
        id: "input",
        value: input,
        onChange: (e: { target: { value: string } }) => setInput(e.target.value),
      }),
      h("button", { id: "send", type: "submit" }, "Send"),
      h("button", { id: "stop", type: "button", onClick: () => void stopRun() }, "Stop"),
    ),
  );
}

createRoot(document.getElementById("root")!).render(h(App));
