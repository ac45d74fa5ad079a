-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "trialStartedAt" TIMESTAMP(3);

