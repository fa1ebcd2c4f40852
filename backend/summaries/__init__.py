"""What a finished run says in words and tables: the score summary and member health."""
