import type { ChatModel } from "../src/model/core.js";

/** The provider the environment configures, or undefined (then the demo uses its scripted model). */
export async function modelFromEnvironment(): Promise<ChatModel | undefined> {
  return undefined;
}
