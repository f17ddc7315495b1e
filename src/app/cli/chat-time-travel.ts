import type { CheckpointInfo, CheckpointList } from "../../protocol/time-travel-types.js";
import type { ChatClient } from "./chat-client.js";
import type { LineReader } from "./line-reader.js";

/** The chat's prompt and output (ChatIo's). */
interface ChatIo {
  lines: LineReader;
  out: NodeJS.WritableStream;
}

const COMMAND = /^\/(rewind|fork)(?:\s+(\S+))?\s*$/;

/** Whether the line is `/rewind [checkpoint]` or `/fork [checkpoint]`. */
export const isTimeTravelCommand = (line: string) => COMMAND.test(line.trim());

/** A checkpoint as one line of the list: `cp-3  reply end  4 messages  "the last text"`. */
function describe(checkpoint: CheckpointInfo, head: string | undefined): string {
  const last = checkpoint.lastMessage
    ? `  ${checkpoint.lastMessage.role}: "${checkpoint.lastMessage.text.slice(0, 60)}"`
    : "";
  const here = checkpoint.id === head ? "  (you are here)" : "";
  const pruned = checkpoint.workspace?.status === "pruned" ? "  (files pruned)" : "";
  return `  ${checkpoint.id.padEnd(7)} ${checkpoint.kind.replace("_", " ").padEnd(9)} ${String(checkpoint.messages).padStart(3)} messages${last}${pruned}${here}\n`;
}

/**
 * `/rewind [checkpoint]` and `/fork [checkpoint]`. Without a checkpoint, the session's line is listed
 * and the person picks one (an empty answer cancels). A rewind says what it restored and what it did
 * not, and how to undo it; a fork continues the chat in the new session. Answers the client to go on
 * with (the fork's, or the same).
 */
export async function timeTravelCommand(line: string, client: ChatClient, io: ChatIo): Promise<ChatClient> {
  const [, command, named] = COMMAND.exec(line.trim()) ?? [];
  const travel = client.timeTravel;
  if (!travel) {
    io.out.write(`/${command}: this chat keeps no checkpoints\n`);
    return client;
  }
  try {
    const list = await travel.checkpoints();
    const onLine = lineOf(list);
    let target = named;
    if (!target) {
      io.out.write(`checkpoints of this session, oldest first:\n`);
      for (const checkpoint of onLine) io.out.write(describe(checkpoint, list.head.at));
      target = (await io.lines.next(`${command} to which checkpoint? (empty cancels): `))?.trim();
      if (!target) {
        io.out.write("cancelled\n");
        return client;
      }
    }
    if (command === "fork") {
      const fork = await travel.fork(target);
      io.out.write(
        `forked ${target} into session ${fork.sessionId}: the chat goes on there (its own copy of the files)\n`,
      );
      return fork;
    }
    const answer = await travel.rewind(target);
    const files = answer.files
      ? `, workspace files put back (${answer.files.written} written, ${answer.files.removed} removed)`
      : "";
    io.out.write(
      `back at ${answer.checkpoint}: ${answer.messages} messages, permission grants as they were${files}\n` +
        "not restored: what the agent did outside the session (emails sent, requests made) and memory writes\n" +
        `undo with /rewind ${answer.undo}\n`,
    );
  } catch (error) {
    io.out.write(`/${command} failed: ${(error as Error).message}\n`);
  }
  return client;
}

/** The checkpoints on the session's line (from its head back to the first), oldest first. */
function lineOf(list: CheckpointList): CheckpointInfo[] {
  const byId = new Map(list.checkpoints.map((checkpoint) => [checkpoint.id, checkpoint]));
  const line: CheckpointInfo[] = [];
  for (let at = list.head.at; at !== undefined && line.length < byId.size; at = byId.get(at)?.parent) {
    const checkpoint = byId.get(at);
    if (checkpoint) line.unshift(checkpoint);
  }
  return line;
}
