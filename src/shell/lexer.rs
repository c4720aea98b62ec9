//! Tokens with byte spans. (Being written: see the Foundation issue.)
