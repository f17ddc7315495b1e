import type {
  BlobResourceContents,
  ContentBlock as McpContentBlock,
  TextResourceContents,
} from "@modelcontextprotocol/sdk/types.js";
import { type DataBlock, dataBlock, type TextBlock, textBlock } from "../../message/index.js";

/** Text or base64 contents of a resource (from `readResource` or embedded in a result). */
export function resourceContentsToBlock(
  contents: TextResourceContents | BlobResourceContents,
): TextBlock | DataBlock {
  if ("text" in contents) return textBlock(contents.text);
  return dataBlock(contents.blob, contents.mimeType ?? "application/octet-stream", contents.uri);
}

/**
 * One MCP content item as our block: text → text; image and audio → base64 data blocks with their
 * MIME type; embedded resources → text or data; resource links and unknown kinds → a text line.
 */
export function mcpContentToBlock(content: McpContentBlock): TextBlock | DataBlock {
  switch (content.type) {
    case "text":
      return textBlock(content.text);
    case "image":
    case "audio":
      return dataBlock(content.data, content.mimeType);
    case "resource":
      return resourceContentsToBlock(content.resource);
    case "resource_link": {
      const about = content.description ? ` - ${content.description}` : "";
      return textBlock(`[resource ${content.name}: ${content.uri}${about}]`);
    }
    default:
      return textBlock(JSON.stringify(content));
  }
}

/** A tool result's blocks; a result with only `structuredContent` becomes its JSON text. */
export function mcpResultToBlocks(result: {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
}): Array<TextBlock | DataBlock> {
  const content = result.content ?? [];
  if (content.length === 0 && result.structuredContent !== undefined) {
    return [textBlock(JSON.stringify(result.structuredContent))];
  }
  return content.map(mcpContentToBlock);
}

/** The text of blocks joined by newlines, for error messages. */
export function textOfBlocks(blocks: Array<TextBlock | DataBlock>): string {
  return blocks
    .filter((block): block is TextBlock => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}
