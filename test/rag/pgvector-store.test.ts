import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { PgVectorStore } from "../../src/rag/index.js";
import { vectorStoreContract } from "./store-contract.js";

/**
 * The local PostgreSQL has no pgvector, so the contract runs against PGlite (PostgreSQL compiled to
 * WebAssembly) with its pgvector extension, served over the PostgreSQL wire protocol and reached
 * through the ordinary `pg` driver, the same path as a production server.
 * Set AGENTSCOPE_PGVECTOR_URL to run it against a real pgvector server as well.
 */
let db: PGlite;
let server: PGLiteSocketServer;
let port = 0;

beforeAll(async () => {
  db = await PGlite.create({ extensions: { vector } });
  server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
  await server.start();
  port = (server as unknown as { server: { address(): { port: number } } }).server.address().port;
});
afterAll(async () => {
  await server?.stop();
  await db?.close();
});

vectorStoreContract("pgvector (PGlite over the wire, pg driver)", async () => {
  // PGlite serves one connection at a time.
  const pool = new pg.Pool({ host: "127.0.0.1", port, user: "postgres", database: "postgres", max: 1 });
  const store = new PgVectorStore({ pool });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await pool.end();
  };
  return store;
});

const url = process.env.AGENTSCOPE_PGVECTOR_URL;
if (url) vectorStoreContract("pgvector (AGENTSCOPE_PGVECTOR_URL)", async () => new PgVectorStore(url));
