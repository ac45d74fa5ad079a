-- AlterTable
ALTER TABLE "Shop" ADD COLUMN "metafieldBackfillAt" DATETIME;

