-- AlterTable
ALTER TABLE "DailyConversionStat" ALTER COLUMN "quantity" SET DATA TYPE BIGINT;

