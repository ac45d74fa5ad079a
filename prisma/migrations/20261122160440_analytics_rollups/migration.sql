-- CreateTable
CREATE TABLE "DailyProductStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day", "productId"),
    CONSTRAINT "DailyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DailyShopStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,
    "activeShoppers" INTEGER NOT NULL DEFAULT 0,

    PRIMARY KEY ("shopId", "day"),
    CONSTRAINT "DailyShopStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DailyActiveOwner" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "ownerKey" TEXT NOT NULL,

    PRIMARY KEY ("shopId", "day", "ownerKey"),
    CONSTRAINT "DailyActiveOwner_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

