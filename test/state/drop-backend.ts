/** Removes what a service backend with `prefix` wrote on Redis or PostgreSQL (tests leave nothing behind). */
export async function dropBackend(url: string, prefix: string): Promise<void> {
  if (url.startsWith("redis")) {
    const { Redis } = await import("ioredis");
    const redis = new Redis(url);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  } else if (url.startsWith("postgres")) {
    const pg = await import("pg");
    const client = new pg.default.Client({ connectionString: url });
    await client.connect();
    const tables = ["events", "sessions", "leases", "state", "state_patches", "state_migrations"].map(
      (t) => `${prefix}${t}`,
    );
    await client.query(`DROP TABLE IF EXISTS ${tables.join(", ")}`);
    await client.query(`DROP SEQUENCE IF EXISTS ${prefix}lease_generation`);
    await client.end();
  }
}
