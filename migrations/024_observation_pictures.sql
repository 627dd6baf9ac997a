-- The image observation format (issue 34, item 2; lambdas/providers/llm/observations/image.ts): per model call,
-- the pictures first sent in it, as the sha256 of each picture's pixels (width, height and RGB bytes:
-- observations/view-image.ts), in the order sent. Not the bytes: each picture is drawn again from the stored
-- vision of the step it shows (the viewer does, and checks the hash). A call's prompt also holds the turn's earlier
-- pictures, recorded with the calls that first sent them. Null for every other format.
ALTER TABLE llm_calls ADD COLUMN image_sha256 text[];
