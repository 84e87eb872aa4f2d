package dev.allot.scheduler;

import org.apache.avro.specific.SpecificRecord;

/** A record the loop writes in its current transaction: topic, key and Avro value. */
public record Output(String topic, String key, SpecificRecord value) {
}
