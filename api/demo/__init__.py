"""The demo: a shared GCG game rendered as a video, recorded live (`tilecam demo`)."""
