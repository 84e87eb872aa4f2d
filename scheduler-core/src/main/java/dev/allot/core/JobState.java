package dev.allot.core;

/** Every submitted job is, at every moment, exactly one of these. Cancelled jobs are FINISHED. */
public enum JobState {
    WAITING,
    RUNNING,
    FINISHED,
    REJECTED
}
