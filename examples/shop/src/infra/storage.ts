import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createLogger } from "./logger";

const log = createLogger("storage");

export interface KeyValueStore<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
  keys(): Promise<string[]>;
}

export class MemoryStore<T> implements KeyValueStore<T> {
  private readonly data = new Map<string, T>();

  async get(key: string): Promise<T | undefined> {
    return this.data.get(key);
  }

  async set(key: string, value: T): Promise<void> {
    this.data.set(key, value);
  }

  async delete(key: string): Promise<void> {
    this.data.delete(key);
  }

  async keys(): Promise<string[]> {
    return [...this.data.keys()];
  }
}

/** One JSON document per namespace; fine for a dev box, not for production. */
export class JsonFileStore<T> implements KeyValueStore<T> {
  private cache: Record<string, T> | undefined;
  private readonly file: string;

  constructor(
    private readonly dir: string,
    namespace: string,
  ) {
    this.file = `${dir.replace(/\/+$/, "")}/${namespace}.json`;
  }

  private async load(): Promise<Record<string, T>> {
    if (this.cache) return this.cache;
    try {
      this.cache = JSON.parse(await readFile(this.file, "utf8")) as Record<string, T>;
    } catch (err) {
      if ((err as { code?: string }).code !== "ENOENT") throw err;
      log.debug("store file missing, starting empty", { file: this.file });
      this.cache = {};
    }
    return this.cache;
  }

  private async flush(data: Record<string, T>): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(this.file, JSON.stringify(data, null, 2));
  }

  async get(key: string): Promise<T | undefined> {
    return (await this.load())[key];
  }

  async set(key: string, value: T): Promise<void> {
    const data = await this.load();
    data[key] = value;
    await this.flush(data);
  }

  async delete(key: string): Promise<void> {
    const data = await this.load();
    delete data[key];
    await this.flush(data);
  }

  async keys(): Promise<string[]> {
    return Object.keys(await this.load());
  }
}
