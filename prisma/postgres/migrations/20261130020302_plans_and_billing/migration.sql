-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "graceEndsAt" TIMESTAMP(3),
ADD COLUMN     "subscriptionId" TEXT,
ADD COLUMN     "subscriptionSignedAt" TIMESTAMP(3),
ADD COLUMN     "subscriptionStatus" TEXT;

-- CreateTable
CREATE TABLE "PlanUsage" (
    "shopId" TEXT NOT NULL,
    "period" TEXT NOT NULL,
    "allowance" TEXT NOT NULL,
    "used" INTEGER NOT NULL DEFAULT 0,
    "reachedAt" TIMESTAMP(3),

    CONSTRAINT "PlanUsage_pkey" PRIMARY KEY ("shopId","period","allowance")
);

-- AddForeignKey
ALTER TABLE "PlanUsage" ADD CONSTRAINT "PlanUsage_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

