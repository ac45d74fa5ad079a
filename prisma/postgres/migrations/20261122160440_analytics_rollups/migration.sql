-- CreateTable
CREATE TABLE "DailyProductStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "DailyProductStat_pkey" PRIMARY KEY ("shopId","day","productId")
);

-- CreateTable
CREATE TABLE "DailyShopStat" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "adds" INTEGER NOT NULL DEFAULT 0,
    "removes" INTEGER NOT NULL DEFAULT 0,
    "activeShoppers" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "DailyShopStat_pkey" PRIMARY KEY ("shopId","day")
);

-- CreateTable
CREATE TABLE "DailyActiveOwner" (
    "shopId" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "ownerKey" TEXT NOT NULL,

    CONSTRAINT "DailyActiveOwner_pkey" PRIMARY KEY ("shopId","day","ownerKey")
);

-- AddForeignKey
ALTER TABLE "DailyProductStat" ADD CONSTRAINT "DailyProductStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DailyShopStat" ADD CONSTRAINT "DailyShopStat_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DailyActiveOwner" ADD CONSTRAINT "DailyActiveOwner_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

