-- AlterTable
ALTER TABLE "TransferJob" ADD COLUMN     "checkpoint" TEXT;

