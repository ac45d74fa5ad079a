-- DropIndex
DROP INDEX "Alert_messageId_idx";

-- DropIndex
DROP INDEX "Alert_shopId_flowState_idx";

-- DropIndex
DROP INDEX "AlertMessage_shopId_customerId_sentAt_idx";

-- DropIndex
DROP INDEX "AlertMessage_state_dueAt_idx";

-- CreateIndex
CREATE INDEX "Alert_messageId_shopId_idx" ON "Alert"("messageId", "shopId");

-- CreateIndex
CREATE INDEX "Alert_shopId_flowState_createdAt_idx" ON "Alert"("shopId", "flowState", "createdAt");

-- CreateIndex
CREATE INDEX "AlertMessage_shopId_state_sentAt_idx" ON "AlertMessage"("shopId", "state", "sentAt");

