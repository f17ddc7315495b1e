import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { AgentScopeError, type ContentBlock, type DataBlock, type Msg } from "../message/index.js";
import { mediaTypeOf } from "./media.js";

const isLocal = (block: ContentBlock): block is DataBlock =>
  block.type === "data" && block.source.type === "url" && block.source.url.startsWith("file:");

function blocksWithFiles(block: ContentBlock): boolean {
  if (isLocal(block)) return true;
  return block.type === "tool_result" && typeof block.output !== "string" && block.output.some(isLocal);
}

/** Whether any data block (also inside tool results) points at a local `file:` URL. */
export function hasLocalFiles(messages: readonly Msg[]): boolean {
  return messages.some((msg) => msg.content.some(blocksWithFiles));
}

async function inline(block: DataBlock): Promise<DataBlock> {
  if (!isLocal(block) || block.source.type !== "url") return block;
  const path = fileURLToPath(block.source.url);
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (error) {
    throw new AgentScopeError(
      {
        type: "invalid_request",
        message: `cannot read the attachment ${path}: ${(error as Error).message}. Check the path in the data block.`,
      },
      { cause: error },
    );
  }
  const mediaType = mediaTypeOf(block);
  return { ...block, source: { type: "base64", mediaType, data: data.toString("base64") } };
}

/** Copies of `messages` whose `file:` data blocks are read into base64, so formatters stay pure. */
export async function inlineLocalFiles(messages: readonly Msg[]): Promise<Msg[]> {
  return Promise.all(
    messages.map(async (msg) => {
      if (!msg.content.some(blocksWithFiles)) return msg;
      const content = await Promise.all(
        msg.content.map(async (block): Promise<ContentBlock> => {
          if (block.type === "data") return inline(block);
          if (block.type !== "tool_result" || typeof block.output === "string") return block;
          const output = await Promise.all(
            block.output.map((part) => (part.type === "data" ? inline(part) : part)),
          );
          return { ...block, output };
        }),
      );
      return { ...msg, content };
    }),
  );
}
