-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "metafieldBackfillAt" TIMESTAMP(3);

