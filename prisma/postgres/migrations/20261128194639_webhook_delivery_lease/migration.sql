-- AlterTable
ALTER TABLE "WebhookDeliveryDue" ADD COLUMN     "leaseId" TEXT;

