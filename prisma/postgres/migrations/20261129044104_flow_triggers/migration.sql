-- AlterTable
ALTER TABLE "Alert" ADD COLUMN     "flowError" TEXT,
ADD COLUMN     "flowState" TEXT;

-- CreateTable
CREATE TABLE "FlowTriggerUse" (
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "signedAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FlowTriggerUse_pkey" PRIMARY KEY ("shopId","trigger")
);

-- CreateIndex
CREATE INDEX "Alert_shopId_flowState_idx" ON "Alert"("shopId", "flowState");

-- AddForeignKey
ALTER TABLE "FlowTriggerUse" ADD CONSTRAINT "FlowTriggerUse_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop"("id") ON DELETE CASCADE ON UPDATE CASCADE;

