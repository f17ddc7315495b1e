import { installCommand, isPackageNotFound } from "../../state/lazy-driver.js";
import { RagError } from "../errors.js";

/**
 * Imports a reader's or store's library on first use; a missing package becomes a RagError naming
 * what needs it and the command that installs it (OPTIONAL_PACKAGES in state/lazy-driver.ts).
 */
export async function importOptional<T>(
  load: () => Promise<T>,
  packageName: string,
  what: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isPackageNotFound(error, packageName))
      throw new RagError(
        `${what} needs the "${packageName}" package: ${installCommand(packageName)}`,
        "internal",
        {
          cause: error,
        },
      );
    throw error;
  }
}
