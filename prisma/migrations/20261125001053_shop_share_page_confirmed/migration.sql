-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "sharePageConfirmedAt" DATETIME;

