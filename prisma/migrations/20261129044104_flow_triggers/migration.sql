-- AlterTable
ALTER TABLE "Alert" ADD COLUMN "flowError" TEXT;
ALTER TABLE "Alert" ADD COLUMN "flowState" TEXT;

-- CreateTable
CREATE TABLE "FlowTriggerUse" (
    "shopId" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "signedAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("shopId", "trigger"),
    CONSTRAINT "FlowTriggerUse_shopId_fkey" FOREIGN KEY ("shopId") REFERENCES "Shop" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Alert_shopId_flowState_idx" ON "Alert"("shopId", "flowState");

