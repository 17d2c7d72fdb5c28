"""The question alone, classified: its evidence type (documents), its image dependency
(images), the kind a validity cell files it under, and the records a dataset's questions
are read from without their images or documents. Nothing here looks at a page."""
