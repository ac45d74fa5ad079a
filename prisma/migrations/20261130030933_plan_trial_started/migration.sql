-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "trialStartedAt" DATETIME;

