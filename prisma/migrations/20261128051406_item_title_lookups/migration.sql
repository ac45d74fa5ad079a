-- Items saved with a title before decision 029 kept the title their save carried, a shopper's as often as
-- not, and nothing tells it apart from a title the platform gave an untitled save. Every titled item of a
-- product still in the shop is made due for a lookup now: the platform's answer replaces the title and
-- marks it the catalogue's ("catalogueTitleAt"). Items of a product found gone are never asked again;
-- their title stays marked as not the catalogue's. Timestamps in the data layer's form (ISO-8601 UTC with
-- an explicit offset).
UPDATE "Item" SET "productLookupAt" = strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')
WHERE "titleSnapshot" <> '' AND "catalogueTitleAt" IS NULL AND "productLookupAt" IS NULL AND "unavailableAt" IS NULL;
