-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DailyConversionStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "lines" INTEGER NOT NULL DEFAULT 0,
    "quantity" BIGINT NOT NULL DEFAULT 0,
    "revenueMinor" BIGINT NOT NULL DEFAULT 0,
    "refundedMinor" BIGINT NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "productId", "source", "currency"),
    CONSTRAINT "DailyConversionStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_DailyConversionStat" ("currency", "day", "lines", "productId", "quantity", "refundedMinor", "revenueMinor", "shopId", "source") SELECT "currency", "day", "lines", "productId", "quantity", "refundedMinor", "revenueMinor", "shopId", "source" FROM "DailyConversionStat";
DROP TABLE "DailyConversionStat";
ALTER TABLE "new_DailyConversionStat" RENAME TO "DailyConversionStat";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

