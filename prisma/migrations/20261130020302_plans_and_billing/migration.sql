-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "graceEndsAt" DATETIME;
ALTER TABLE "Shop" ADD COLUMN "subscriptionId" TEXT;
ALTER TABLE "Shop" ADD COLUMN "subscriptionSignedAt" DATETIME;
ALTER TABLE "Shop" ADD COLUMN "subscriptionStatus" TEXT;

-- CreateTable
CREATE TABLE "PlanUsage" (
    "shopId" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "allowance" TEXT NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "reachedAt" DATETIME,

    PRIMARY KEY ("shopId", "period", "allowance"),
    CONSTRAINT "PlanUsage_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

