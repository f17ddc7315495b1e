import { describe, expect, it } from "vitest";
import {
  CREDENTIAL_DIRECTORIES,
  CREDENTIAL_FILES,
  DEFAULT_CREDENTIAL_LISTS,
  dangerousPathReason,
} from "../../src/permission/index.js";
import { isHiddenPath } from "../../src/workspace/hidden-paths.js";
import { DEFAULT_HIDDEN_DIRECTORIES, DEFAULT_HIDDEN_FILES } from "../../src/workspace/index.js";

const root = "/srv/ws";
/** A concrete path for an entry: `*` becomes a name, at some depth below the root. */
const example = (entry: string) => `${root}/sub/${entry.replaceAll("*", "x")}`;

describe("one credential list for the permission engine and the sandbox", () => {
  it("the sandbox hides by default exactly the shared list", () => {
    expect(DEFAULT_HIDDEN_FILES).toBe(CREDENTIAL_FILES);
    expect(DEFAULT_HIDDEN_DIRECTORIES).toBe(CREDENTIAL_DIRECTORIES);
  });

  it.each([...CREDENTIAL_FILES, ...CREDENTIAL_DIRECTORIES.map((dir) => `${dir}/inner`)])(
    "%s: the engine asks about it and the workspace hides it",
    (entry) => {
      expect(dangerousPathReason(example(entry))).toBeDefined();
      expect(isHiddenPath(root, example(entry), DEFAULT_CREDENTIAL_LISTS)).toBe(true);
    },
  );

  it("covers what the issue names", () => {
    for (const path of [
      ".git-credentials",
      ".pgpass",
      ".kube/config",
      ".docker/config.json",
      ".npmrc",
      ".pypirc",
      ".config/pip/pip.conf",
      ".cargo/credentials.toml",
      ".netrc",
      ".aws/credentials",
      ".config/gcloud/credentials.db",
      ".azure/accessTokens.json",
      ".ssh/id_ed25519",
      ".gnupg/private-keys-v1.d/x.key",
      ".bash_history",
      ".zsh_history",
      ".env.production",
      ".config/gh/hosts.yml",
      "server.PEM",
    ])
      expect(isHiddenPath(root, `${root}/${path}`, DEFAULT_CREDENTIAL_LISTS), path).toBe(true);
  });

  it("ordinary files are neither", () => {
    for (const path of ["src/credentials.ts", "docs/env.md", "keys.txt", ".config/other/x", "history.md"]) {
      expect(isHiddenPath(root, `${root}/${path}`, DEFAULT_CREDENTIAL_LISTS), path).toBe(false);
      expect(dangerousPathReason(`${root}/${path}`), path).toBeUndefined();
    }
  });
});
