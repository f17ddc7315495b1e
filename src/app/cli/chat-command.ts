import type { AgentEvent, RequireUserConfirmEvent } from "../../event/index.js";
import { changeAgainst, type ProposedChange, proposedChangeOf } from "../console/ui/diff.js";
import type { ConfirmAnswer } from "../server/runtime/service-runtime.js";
import type { ChatClient } from "./chat-client.js";
import { isTimeTravelCommand, timeTravelCommand } from "./chat-time-travel.js";
import type { LineReader } from "./line-reader.js";
import { EventRenderer } from "./render-events.js";

export interface ChatIo {
  lines: LineReader;
  out: NodeJS.WritableStream;
  color: boolean;
}

/** The change an asking call proposes: its tool's declared preview, else its arguments (Write/Edit style). */
function proposedChange(call: RequireUserConfirmEvent["toolCalls"][number]): ProposedChange | undefined {
  const preview = call.preview;
  if (preview && typeof preview.path === "string" && typeof preview.after === "string")
    return typeof preview.before === "string"
      ? {
          kind: "edit",
          path: preview.path,
          oldText: preview.before,
          newText: preview.after,
          replaceAll: false,
        }
      : { kind: "write", path: preview.path, content: preview.after };
  try {
    return proposedChangeOf(JSON.parse(call.input));
  } catch {
    return undefined;
  }
}

/** The diff of a file-changing call against the file as the client reads it now ("" for other calls). */
async function diffText(
  call: RequireUserConfirmEvent["toolCalls"][number],
  client: Pick<ChatClient, "readFile">,
  renderer: EventRenderer,
): Promise<string> {
  const change = proposedChange(call);
  if (!change) return "";
  const current = client.readFile ? await client.readFile(change.path).catch(() => null) : null;
  return renderer.diff(changeAgainst(change, current));
}

/**
 * y / n for each call that asks (after the diff of a file write or edit), and a(lways) when the ask suggested rules (never on a safety ask):
 * "always" sends exactly the rules the prompt shows. An "a" where it is not offered is a no.
 */
async function askEach(
  event: RequireUserConfirmEvent,
  io: ChatIo,
  asking: { now: boolean },
  client: Pick<ChatClient, "readFile">,
): Promise<ConfirmAnswer[] | undefined> {
  const answers: ConfirmAnswer[] = [];
  const renderer = new EventRenderer({ color: io.color });
  for (const call of event.toolCalls) {
    io.out.write(await diffText(call, client, renderer));
    asking.now = true;
    const offered = call.suggestedRules?.length ? [...call.suggestedRules] : undefined;
    const options = offered ? `[y]es / [n]o / [a]lways (remember ${offered.join(", ")})` : "[y]es / [n]o";
    const line = await io.lines.next(`Allow ${call.name}? ${options}: `).finally(() => {
      asking.now = false;
    });
    if (line === undefined) return undefined;
    const answer = line.trim().toLowerCase();
    const always = offered !== undefined && answer.startsWith("a");
    const entry: ConfirmAnswer = { toolCallId: call.id, confirmed: always || answer.startsWith("y") };
    if (always) entry.rules = offered;
    answers.push(entry);
  }
  return answers;
}

/**
 * The chat loop: read a line, stream the reply, answer confirmations, repeat until /exit or end of
 * input (`/rewind` and `/fork` move the session in time, chat-time-travel.ts). Ctrl-C while a reply streams interrupts it (the program keeps going); at an `Allow?` question
 * it answers no (the reply goes on without that call); at the `>` prompt it quits.
 */
export async function chatLoop(first: ChatClient, io: ChatIo): Promise<void> {
  let client = first; // `/fork` moves the chat to the new session
  let replying = false;
  const asking = { now: false };
  const onInterrupt = () => {
    if (replying) {
      io.out.write("\n[interrupting the reply]\n");
      void client.interrupt();
    } else if (asking.now) {
      io.out.write("n\n[denied]\n");
      io.lines.answer("n");
    } else io.lines.close();
  };
  io.lines.rl.on("SIGINT", onInterrupt);
  process.on("SIGINT", onInterrupt);
  try {
    for (;;) {
      const line = await io.lines.next("> ");
      if (line === undefined || line.trim() === "/exit") break;
      if (line.trim() === "") continue;
      if (isTimeTravelCommand(line)) {
        client = await timeTravelCommand(line, client, io);
        continue;
      }
      let stream: AsyncGenerator<AgentEvent> | undefined = client.send(line);
      while (stream) {
        const renderer = new EventRenderer({ color: io.color });
        let ask: RequireUserConfirmEvent | undefined;
        replying = true;
        try {
          for await (const event of stream) {
            io.out.write(renderer.render(event));
            if (event.type === "REQUIRE_USER_CONFIRM") ask = event;
          }
        } catch (error) {
          io.out.write(`\nerror: ${(error as Error).message}\n`);
        } finally {
          replying = false;
        }
        io.out.write("\n");
        const answers = ask ? await askEach(ask, io, asking, client) : undefined;
        stream = answers ? client.confirm(answers) : undefined;
      }
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    io.lines.close();
  }
}
