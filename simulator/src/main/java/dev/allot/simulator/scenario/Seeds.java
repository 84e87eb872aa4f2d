package dev.allot.simulator.scenario;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/** Stable seeded randomness: one generator per (seed, purpose, key), independent of processing order. */
public final class Seeds {
    private Seeds() {
    }

    public static SplittableRandom random(long seed, String purpose, String key) {
        long h = mix(seed);
        h = mix(h ^ fnv(purpose));
        h = mix(h ^ fnv(key));
        return new SplittableRandom(h);
    }

    static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** SplitMix64 finalizer. */
    static long mix(long z) {
        z += 0x9e3779b97f4a7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
