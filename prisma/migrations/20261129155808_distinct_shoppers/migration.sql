-- CreateTable
CREATE TABLE "DailyOwnerReturn" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "previousDay" TEXT NOT NULL,
    "owners" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "previousDay"),
    CONSTRAINT "DailyOwnerReturn_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "DailyActiveOwner_shopId_ownerKey_day_idx" ON "DailyActiveOwner"("shopId", "ownerKey", "day");


-- Backfill: each active-owner day by the owner's previous active day ("" when none in the 365 days before).
INSERT INTO "DailyOwnerReturn" ("shopId", "day", "previousDay", "owners")
SELECT "shopId", "day", CASE WHEN "prev" IS NULL OR "prev" < date("day", '-365 days') THEN '' ELSE "prev" END, COUNT(*)
FROM (
    SELECT "shopId", "day", LAG("day") OVER (PARTITION BY "shopId", "ownerKey" ORDER BY "day") AS "prev"
    FROM "DailyActiveOwner"
)
GROUP BY 1, 2, 3;
