"""Text-region detection: word boxes from the PDF text layer or OCR, grouped into roles."""
