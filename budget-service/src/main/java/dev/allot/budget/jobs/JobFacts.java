package dev.allot.budget.jobs;

import dev.allot.edge.EventReader;
import dev.allot.schemas.JobEvent;
import dev.allot.schemas.JobRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * A job's facts (the {@link JobRequest}s and {@link JobEvent}s it was told, in arrival order) as bytes, each after a
 * tag: about 1 KB per finished job where their decoded records took about twice that. A fact read from the log keeps
 * the record's own bytes (Kafka's value, the registry's wire format: copying them costs nothing, where encoding again
 * cost ~1.5 µs a fact, a second on a replay of 100,000 jobs) and is read back with the projector's reader, whose
 * writer schemas are cached since it read them; a fact this instance wrote itself (its own submissions) is Avro's
 * binary encoding of this build's schema.
 */
final class JobFacts {

    /** A fact, with the bytes it was read from when it came from the log (else null). */
    record Fact(SpecificRecord value, byte[] wire) {
    }

    private static final int REQUEST = 0;
    private static final int EVENT = 1;
    private static final int REQUEST_WIRE = 2;
    private static final int EVENT_WIRE = 3;

    /** Avro's readers keep unsynchronised caches: one pair per thread (the projector and the HTTP workers). */
    private static final ThreadLocal<Codec> CODEC = ThreadLocal.withInitial(Codec::new);

    private JobFacts() {
    }

    static byte[] encode(List<Fact> facts) {
        Codec codec = CODEC.get();
        ByteArrayOutputStream out = codec.out;
        out.reset();
        BinaryEncoder encoder = codec.encoder = EncoderFactory.get().binaryEncoder(out, codec.encoder);
        try {
            for (Fact fact : facts) {
                if (fact.wire() != null) {
                    encoder.writeInt(fact.value() instanceof JobRequest ? REQUEST_WIRE : EVENT_WIRE);
                    encoder.writeBytes(fact.wire());
                    continue;
                }
                switch (fact.value()) {
                    case JobRequest request -> {
                        encoder.writeInt(REQUEST);
                        codec.requestWriter.write(request, encoder);
                    }
                    case JobEvent event -> {
                        encoder.writeInt(EVENT);
                        codec.eventWriter.write(event, encoder);
                    }
                    default -> throw new IllegalArgumentException("not a job fact: " + fact.value().getClass().getName());
                }
            }
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return out.toByteArray();
    }

    static List<Fact> decode(byte[] bytes, JobBook.WireReader wireReader) {
        Codec codec = CODEC.get();
        BinaryDecoder decoder = codec.decoder = DecoderFactory.get().binaryDecoder(bytes, codec.decoder);
        List<Fact> facts = new ArrayList<>();
        try {
            while (!decoder.isEnd()) {
                int tag = decoder.readInt();
                facts.add(switch (tag) {
                    case REQUEST -> new Fact(codec.requestReader.read(null, decoder), null);
                    case EVENT -> new Fact(codec.eventReader.read(null, decoder), null);
                    case REQUEST_WIRE, EVENT_WIRE -> {
                        byte[] wire = bytes(decoder);
                        yield new Fact(wireReader.read(wire, tag == REQUEST_WIRE ? JobRequest.class : JobEvent.class),
                                wire);
                    }
                    default -> throw new IOException("unknown tag " + tag);
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a finished job's facts do not decode", e);
        }
        return facts;
    }

    private static byte[] bytes(BinaryDecoder decoder) throws IOException {
        java.nio.ByteBuffer buffer = decoder.readBytes(null);
        byte[] wire = new byte[buffer.remaining()];
        buffer.get(wire);
        return wire;
    }

    private static final class Codec {
        /** The schema classes' own loader (Quarkus loads Avro and the application apart), as kafka-edge reads. */
        private static final SpecificData MODEL = EventReader.model(JobRequest.class.getClassLoader());

        final ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        BinaryEncoder encoder;
        BinaryDecoder decoder;
        final SpecificDatumWriter<JobRequest> requestWriter = new SpecificDatumWriter<>(JobRequest.getClassSchema(), MODEL);
        final SpecificDatumWriter<JobEvent> eventWriter = new SpecificDatumWriter<>(JobEvent.getClassSchema(), MODEL);
        final SpecificDatumReader<JobRequest> requestReader =
                new SpecificDatumReader<>(JobRequest.getClassSchema(), JobRequest.getClassSchema(), MODEL);
        final SpecificDatumReader<JobEvent> eventReader =
                new SpecificDatumReader<>(JobEvent.getClassSchema(), JobEvent.getClassSchema(), MODEL);
    }
}
