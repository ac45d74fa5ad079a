-- CreateTable
CREATE TABLE "WeeklyProductStat" (
    "shopId" TEXT NOT NULL,
    "week" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "WeeklyProductStat_pkey" PRIMARY KEY ("shopId","week","productId")
);

-- CreateTable
CREATE TABLE "MonthlyProductStat" (
    "shopId" TEXT NOT NULL,
    "month" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "MonthlyProductStat_pkey" PRIMARY KEY ("shopId","month","productId")
);

-- AddForeignKey
ALTER TABLE "WeeklyProductStat" ADD CONSTRAINT "WeeklyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "MonthlyProductStat" ADD CONSTRAINT "MonthlyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill from the days (decision 055): a week is keyed by its Monday, a month by YYYY-MM.
INSERT INTO "WeeklyProductStat" ("shopId", "week", "productId", "adds", "removes")
SELECT "shopId", to_char("day"::date - (("day"::date - date '1970-01-05') % 7), 'YYYY-MM-DD'), "productId", SUM("adds"), SUM("removes")
FROM "DailyProductStat"
GROUP BY 1, 2, 3;

INSERT INTO "MonthlyProductStat" ("shopId", "month", "productId", "adds", "removes")
SELECT "shopId", substr("day", 1, 7), "productId", SUM("adds"), SUM("removes")
FROM "DailyProductStat"
GROUP BY 1, 2, 3;
