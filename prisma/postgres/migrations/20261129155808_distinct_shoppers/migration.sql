-- CreateTable
CREATE TABLE "DailyOwnerReturn" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "previousDay" TEXT NOT NULL,
    "owners" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "DailyOwnerReturn_pkey" PRIMARY KEY ("shopId","day","previousDay")
);

-- CreateIndex
CREATE INDEX "DailyActiveOwner_shopId_ownerKey_day_idx" ON "DailyActiveOwner"("shopId", "ownerKey", "day");

-- AddForeignKey
ALTER TABLE "DailyOwnerReturn" ADD CONSTRAINT "DailyOwnerReturn_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Backfill: each active-owner day by the owner's previous active day ("" when none in the 365 days before).
INSERT INTO "DailyOwnerReturn" ("shopId", "day", "previousDay", "owners")
SELECT "shopId", "day", CASE WHEN "prev" IS NULL OR "prev" < to_char("day"::date - 365, 'YYYY-MM-DD') THEN '' ELSE "prev" END, COUNT(*)
FROM (
    SELECT "shopId", "day", LAG("day") OVER (PARTITION BY "shopId", "ownerKey" ORDER BY "day") AS "prev"
    FROM "DailyActiveOwner"
) AS "days"
GROUP BY 1, 2, 3;
