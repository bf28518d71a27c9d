"""The accelerator path: kernel mapping (``gpu_ify``), and later transfers and launches.

The passes keep the program plain, runnable C at every step (Par4All's
shape): a parallel nest becomes a *launcher* whose loops run over the
iteration box and call a *kernel* (the body of one iteration, behind a
guard) once per point. Backends turn launchers into device launches.
Transfers: per launch (:mod:`.load_store`), kept on the device across
launches, loops and calls (:mod:`.data_mapping`), redundant copies removed
and moved out of loops and functions (:mod:`.rlse`), and per-tile loads of
only what earlier tiles did not load (:mod:`.tiled_transfers`).
"""
