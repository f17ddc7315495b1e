/**
 * The page's rendering of Msgs: one node per message and per block, patched in place as events
 * fold in (so a user's open/closed thinking or scroll position survives streaming).
 */
export const VIEW_JS = String.raw`
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function prettyJson(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch (_) {
    return text;
  }
}

const FENCE = "\x60\x60\x60";

/** Text with fenced code blocks; everything else stays plain (no HTML is ever interpreted). */
function setText(node, text) {
  if (node._text === text) return;
  node._text = text;
  node.replaceChildren();
  text.split(FENCE).forEach((part, i) => {
    if (i % 2 === 1) {
      const newline = part.indexOf("\n");
      node.append(el("pre", "code", newline >= 0 ? part.slice(newline + 1) : part));
    } else {
      const para = part.replace(/^\n/, "").replace(/\n$/, "");
      if (para !== "") node.append(el("div", "para", para));
    }
  });
}

function setOpen(details, open) {
  if (details.dataset.user === "1" || details.open === open) return;
  details._expected = open;
  details.open = open;
}

function collapsible(className, title) {
  const details = el("details", className);
  const summary = el("summary", "", title);
  const body = el("div", className + "-body");
  details.append(summary, body);
  details.addEventListener("toggle", () => {
    if (details.open !== details._expected) details.dataset.user = "1";
    details._expected = details.open;
  });
  details._expected = false;
  return details;
}

/** Only http(s) and blob: URLs, and data: for images, are ever rendered (never javascript: and the like). */
function safeUrl(url, image) {
  let protocol;
  try {
    protocol = new URL(url, location.href).protocol;
  } catch (_) {
    return undefined;
  }
  if (protocol === "http:" || protocol === "https:" || protocol === "blob:") return url;
  return image && protocol === "data:" && /^data:image\//i.test(url) ? url : undefined;
}

function bytesUrl(base64) {
  try {
    const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
    return URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
  } catch (_) {
    return undefined;
  }
}

function dataNode(block) {
  const source = block.source;
  const type = source.mediaType || "";
  const image = type.startsWith("image/");
  const href = source.type === "url"
    ? safeUrl(source.url, image)
    : image ? "data:" + type + ";base64," + source.data : bytesUrl(source.data);
  if (href === undefined) return el("span", "attachment", (block.name || type || "attachment") + " (link not shown: unsupported URL)");
  if (image) {
    const img = el("img", "media");
    img.alt = block.name || "image";
    img.src = href;
    return img;
  }
  const link = el("a", "attachment", block.name || type || "attachment");
  link.href = href;
  link.download = block.name || "";
  return link;
}

function outputNodes(output) {
  if (typeof output === "string") return { text: output, media: [] };
  const text = output.filter((p) => p.type === "text").map((p) => p.text).join("");
  return { text: text, media: output.filter((p) => p.type === "data") };
}

const RESULT_LABELS = {
  running: "running",
  success: "done",
  error: "error",
  denied: "denied",
  interrupted: "interrupted",
};
const CALL_LABELS = {
  pending: "preparing",
  asking: "needs approval",
  allowed: "approved",
  submitted: "waiting for an external result",
  finished: "done",
};

function toolState(call, result) {
  if (result) return result.state;
  return call.state;
}

function askArea(card, call, ctx) {
  const decision = ctx.decisions.get(call.id);
  const key = call.state + "|" + (decision ? decision.kind : "");
  if (card._askKey === key) return;
  card._askKey = key;
  const area = card._ask;
  area.replaceChildren();
  area.hidden = call.state !== "asking";
  if (area.hidden) return;
  const ask = ctx.asks.get(call.id) || {};
  if (ask.reason) area.append(el("div", "ask-reason", ask.reason));
  if (decision) {
    area.append(el("div", "ask-pending", decision.label + " — sending once every call is decided"));
    return;
  }
  const rules = ask.suggestedRules && ask.suggestedRules.length ? ask.suggestedRules : [call.name];
  const buttons = el("div", "ask-buttons");
  const button = (kind, label, cls, title) => {
    const b = el("button", cls, label);
    b.type = "button";
    b.dataset.decide = kind;
    b.dataset.call = call.id;
    if (title) b.title = title;
    return b;
  };
  buttons.append(
    button("approve", "Approve", "primary"),
    button("deny", "Deny", "danger"),
    button("always", "Always allow", "", "Approve and allow from now on: " + rules.join(", ")),
  );
  area.append(buttons);
}

function toolCard(card, call, result, ctx) {
  if (!card._head) {
    card.className = "tool";
    card._head = el("div", "tool-head");
    card._name = el("span", "tool-name");
    card._badge = el("span", "badge");
    card._head.append(card._name, card._badge);
    card._args = collapsible("tool-args", "Arguments");
    card._output = el("pre", "tool-output");
    card._media = el("div", "tool-media");
    card._ask = el("div", "tool-ask");
    card.append(card._head, card._args, card._output, card._media, card._ask);
    card._args._expected = true;
    card._args.open = true;
  }
  const state = toolState(call, result);
  card.dataset.state = state;
  card.dataset.call = call.id;
  card._name.textContent = call.name;
  card._badge.textContent = result ? RESULT_LABELS[result.state] || result.state : CALL_LABELS[call.state] || call.state;
  const args = prettyJson(call.input);
  const argsBody = card._args.lastChild;
  if (argsBody.textContent !== args) argsBody.textContent = args;
  setOpen(card._args, !result);
  const out = result ? outputNodes(result.output) : { text: "", media: [] };
  card._output.hidden = !result;
  if (card._output.textContent !== out.text) card._output.textContent = out.text;
  if (card._media.childElementCount !== out.media.length) card._media.replaceChildren(...out.media.map(dataNode));
  askArea(card, call, ctx);
}

function blockNode(msgNode, key, tag) {
  let node = msgNode._blocks.get(key);
  if (!node) {
    node = el(tag);
    msgNode._blocks.set(key, node);
  }
  return node;
}

const FINISH_NOTES = {
  interrupted: "Interrupted.",
  exceed_max_iters: "Stopped: the agent reached its step limit.",
  stopped: "Stopped.",
};

/**
 * Renders msg into node. ctx: { live (this reply is in flight), waiting, asks (callId → { reason,
 * suggestedRules }), decisions (callId → { kind, label }) }.
 */
export function renderMsg(node, msg, ctx) {
  if (!node._blocks) {
    node._blocks = new Map();
    node.className = "msg " + msg.role;
    node.dataset.id = msg.id;
    node._body = el("div", "msg-body");
    node._foot = el("div", "msg-foot");
    node.append(node._body, node._foot);
  }
  const results = new Map();
  for (const block of msg.content) if (block.type === "tool_result") results.set(block.id, block);
  const shown = msg.content.filter((b) => b.type !== "tool_result" && b.type !== "hint");
  const wanted = [];
  shown.forEach((block, index) => {
    const key = block.type + ":" + block.id;
    const streaming = ctx.live && !ctx.waiting && index === shown.length - 1;
    let child;
    if (block.type === "text") {
      child = blockNode(node, key, "div");
      child.className = "text";
      setText(child, block.text);
    } else if (block.type === "thinking") {
      child = node._blocks.get(key);
      if (!child) {
        child = collapsible("thinking", "Thinking");
        node._blocks.set(key, child);
      }
      child.firstChild.textContent = streaming ? "Thinking…" : "Thought";
      const text = block.thinking || (block.redactedData ? "(redacted by the provider)" : "");
      if (child.lastChild.textContent !== text) child.lastChild.textContent = text;
      setOpen(child, streaming);
    } else if (block.type === "tool_call") {
      child = blockNode(node, key, "div");
      toolCard(child, block, results.get(block.id), ctx);
    } else if (block.type === "data") {
      child = node._blocks.get(key);
      if (!child || child._src !== JSON.stringify(block.source).length) {
        child = dataNode(block);
        child._src = JSON.stringify(block.source).length;
        node._blocks.set(key, child);
      }
    }
    if (child) wanted.push(child);
  });
  wanted.forEach((child, i) => {
    if (node._body.children[i] !== child) node._body.insertBefore(child, node._body.children[i] || null);
  });
  while (node._body.children.length > wanted.length) node._body.lastChild.remove();

  const foot = [];
  if (msg.error) foot.push(el("div", "error", msg.error.message + (msg.error.type ? " (" + msg.error.type + ")" : "")));
  if (msg.finishedReason && FINISH_NOTES[msg.finishedReason]) foot.push(el("div", "note", FINISH_NOTES[msg.finishedReason]));
  if (ctx.live && !ctx.waiting) foot.push(el("div", "working", "working"));
  if (ctx.live && ctx.waiting) foot.push(el("div", "note", ctx.waiting));
  if (msg.role === "assistant" && msg.usage && !ctx.live) {
    foot.push(el("div", "usage", msg.usage.inputTokens + " in · " + msg.usage.outputTokens + " out tokens"));
  }
  node._foot.replaceChildren(...foot);
}
`;
