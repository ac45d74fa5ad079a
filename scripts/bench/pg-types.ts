import pg from "pg";

/**
 * How the bench scripts' pg connections send and read values, as the app's pool does
 * (app/data/postgres.server.ts): timestamp(3) columns hold UTC, sent and read as such whatever the
 * process's time zone. Importing this module sets the send side for the process.
 */
pg.defaults.parseInputDatesAsUTC = true;

export const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === 1114
      ? (value: string) => new Date(`${value.replace(" ", "T")}Z`)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};
