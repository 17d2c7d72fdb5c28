"""What a page or an image holds, read without changing it: figures and drawings, the
pixel analysis behind them, captions, the numbers of a page and the roles they play,
time references.

Below everything that edits (``transforms``, ``evidence``, ``qc``, ``routing``): those
read pages through this layer, and nothing here imports them. It reads words through
:mod:`..textregions` and files through :mod:`..media`.
"""
