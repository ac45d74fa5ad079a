-- CreateTable
CREATE TABLE "WeeklyProductStat" (
    "shopId" TEXT NOT NULL,
    "week" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "week", "productId"),
    CONSTRAINT "WeeklyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "MonthlyProductStat" (
    "shopId" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "month", "productId"),
    CONSTRAINT "MonthlyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);


-- Backfill from the days (decision 055): a week is keyed by its Monday, a month by YYYY-MM.
INSERT INTO "WeeklyProductStat" ("shopId", "week", "productId", "adds", "removes")
SELECT "shopId", date("day", '-' || ((CAST(julianday("day") - julianday('1970-01-05') AS INTEGER)) % 7) || ' days'), "productId", SUM("adds"), SUM("removes")
FROM "DailyProductStat"
GROUP BY 1, 2, 3;

INSERT INTO "MonthlyProductStat" ("shopId", "month", "productId", "adds", "removes")
SELECT "shopId", substr("day", 1, 7), "productId", SUM("adds"), SUM("removes")
FROM "DailyProductStat"
GROUP BY 1, 2, 3;
