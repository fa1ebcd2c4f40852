"""Label Studio's own template configs (as its template gallery ships them), for the generic-task tests."""

from xml.sax.saxutils import escape

SENTIMENT = """<View>
  <Header value="Choose text sentiment:"/>
  <Text name="text" value="$text"/>
  <Choices name="sentiment" toName="text" choice="single-radio" showInLine="true">
    <Choice value="Positive"/>
    <Choice value="Negative"/>
    <Choice value="Neutral"/>
  </Choices>
</View>"""

SENTIMENT_GUIDELINES = (
    "<h3>Sentiment guidelines</h3><p>Label the <b>overall</b> sentiment of the review &amp; ignore sarcasm "
    "markers.</p><ul><li>Positive: praise</li><li>Negative: complaints</li><li>Neutral: facts only</li></ul>"
)

TOPICS = ("World", "Sports", "Business", "Science/Tech", "Arts & Culture", "Politics")
TOPIC = """<View>
  <Text name="text" value="$text"/>
  <Choices name="topic" toName="text" choice="single" showInLine="true">
""" + "\n".join(f'    <Choice value="{escape(t)}"/>' for t in TOPICS) + """
  </Choices>
</View>"""

SPAM = """<View>
  <Header value="Is this message spam?"/>
  <Text name="message" value="$message"/>
  <Choices name="class" toName="message" choice="single">
    <Choice value="spam" hint="unsolicited advertising or scams"/>
    <Choice value="ham" hint="a normal message"/>
  </Choices>
</View>"""
