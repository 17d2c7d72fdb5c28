"""Reading and writing images and PDFs, with the limits that keep bad input from hurting a run."""
