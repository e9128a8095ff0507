export type LogLevel = "debug" | "info" | "warn" | "error";

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogRecord {
  readonly level: LogLevel;
  readonly logger: string;
  readonly msg: string;
  readonly time: string;
  readonly [field: string]: unknown;
}

export type LogSink = (record: LogRecord) => void;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(bindings: Record<string, unknown>): Logger;
}

let threshold: LogLevel = "info";
let sink: LogSink = (record) => {
  const line = JSON.stringify(record);
  if (record.level === "error" || record.level === "warn") console.error(line);
  else console.log(line);
};

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

export function setLogSink(next: LogSink): void {
  sink = next;
}

export function createLogger(name: string, bindings: Record<string, unknown> = {}): Logger {
  const write = (level: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (SEVERITY[level] < SEVERITY[threshold]) return;
    sink({ ...bindings, ...fields, level, logger: name, msg, time: new Date().toISOString() });
  };
  return {
    debug: (msg, fields) => write("debug", msg, fields),
    info: (msg, fields) => write("info", msg, fields),
    warn: (msg, fields) => write("warn", msg, fields),
    error: (msg, fields) => write("error", msg, fields),
    child: (extra) => createLogger(name, { ...bindings, ...extra }),
  };
}

export default createLogger;
