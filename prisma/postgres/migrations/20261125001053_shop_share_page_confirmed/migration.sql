-- AlterTable
ALTER TABLE "Shop" ADD COLUMN     "sharePageConfirmedAt" TIMESTAMP(3);

