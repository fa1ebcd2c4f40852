"""A Label Studio multi-label template (the "Multi-Label Text Classification" shape) with hints and an alias."""

TOPICS_MULTI = """<View>
  <Text name="text" value="$text"/>
  <View style="box-shadow: 2px 2px 5px #999; padding: 20px; margin-top: 2em; border-radius: 5px;">
    <Header value="Which topics does the text cover?"/>
    <Choices name="topics" toName="text" choice="multiple" showInLine="true">
      <Choice value="Sports" hint="games, athletes, results"/>
      <Choice value="Politics"/>
      <Choice value="Technology" alias="Tech" hint="software, gadgets, science"/>
      <Choice value="Business"/>
    </Choices>
  </View>
</View>"""
LABELS = ("Sports", "Politics", "Tech", "Business")


def regions(labels, *, control: str = "topics") -> list[dict]:
    """An annotation result choosing ``labels`` (Label Studio omits the region when none is chosen)."""
    if not labels:
        return []
    return [{"from_name": control, "to_name": "text", "type": "choices", "value": {"choices": list(labels)}}]
