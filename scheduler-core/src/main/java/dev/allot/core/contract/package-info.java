/** The scheduling contract: minimum runtime 0..max, charge mode, protected window. */
package dev.allot.core.contract;
