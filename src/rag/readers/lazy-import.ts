import { RagError } from "../errors.js";

/**
 * Imports a reader's or store's library on first use; a missing package becomes a RagError saying
 * what to install (`npm install <package>`).
 */
export async function importOptional<T>(
  load: () => Promise<T>,
  packageName: string,
  what: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (
      (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
      String(error).includes(packageName)
    ) {
      throw new RagError(
        `${what} needs the "${packageName}" package: npm install ${packageName}`,
        "internal",
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
